import { useEffect, useRef, useState } from "preact/hooks";
import { api, describeError, type Schemas } from "../api.ts";
import { when } from "../format.ts";
import { useLoad } from "../load.ts";

type Key = Schemas["ApiKeyInfo"];
type Created = Schemas["CreateApiKeyResponse"];

function keyState(key: Key): string {
  if (key.revoked_at !== null) return `revoked ${when(key.revoked_at)}`;
  if (key.expires_at !== null && Date.parse(key.expires_at) <= Date.now()) {
    return `expired ${when(key.expires_at)}`;
  }
  return key.expires_at === null ? "active" : `active until ${when(key.expires_at)}`;
}

/** Names a new key and, optionally, when it expires; the key itself is shown once, above. */
function CreateKey({ onCreated }: { onCreated: (created: Created) => void }) {
  const [name, setName] = useState("");
  const [expires, setExpires] = useState("");
  const [error, setError] = useState("");
  const submit = async (event: Event) => {
    event.preventDefault();
    setError("");
    try {
      // A datetime-local value is in the browser's time zone; the API wants an offset.
      const expiresAt = expires === "" ? undefined : new Date(expires).toISOString();
      const created = await api("post", "/api/v1/auth/keys", {
        body: {
          name: name.trim(),
          ...(expiresAt ? { expires_at: expiresAt } : {}),
        },
      });
      setName("");
      setExpires("");
      onCreated(created);
    } catch (e) {
      setError(describeError(e));
    }
  };
  return (
    <form class="row" onSubmit={submit} aria-label="Create an API key">
      <label>
        Name
        <input
          required
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
      </label>
      <label>
        Expires (optional)
        <input
          type="datetime-local"
          value={expires}
          onInput={(e) => setExpires(e.currentTarget.value)}
        />
      </label>
      <button type="submit">Create key</button>
      {error && <p role="alert" class="error">{error}</p>}
    </form>
  );
}

/**
 * The caller's API keys: create one (its plaintext shown once, here), see when each was last
 * used, and revoke one after confirming (it and every token signed in with it stop at once).
 */
export function KeysPage() {
  const list = useLoad(() => api("get", "/api/v1/auth/keys"), []);
  const [created, setCreated] = useState<Created | null>(null);
  const [status, setStatus] = useState("");
  const [doomed, setDoomed] = useState<Key | null>(null);
  const dialog = useRef<HTMLDialogElement>(null);
  useEffect(() => {
    if (doomed) dialog.current?.showModal();
    else dialog.current?.close();
  }, [doomed]);
  const revoke = async () => {
    if (!doomed) return;
    try {
      await api("delete", "/api/v1/auth/keys/{key_id}", {
        params: { key_id: doomed.key_id },
      });
      setStatus(`Revoked "${doomed.name}".`);
      list.reload();
    } catch (e) {
      setStatus(`Could not revoke: ${describeError(e)}`);
    }
    setDoomed(null);
  };
  const keys = list.data?.keys ?? [];
  return (
    <>
      <h1>API keys</h1>
      <p class="hint">
        Each key signs in on its own and can be revoked alone: one per machine or tool. The service
        keeps only a digest, so a key is shown once, when it is made.
      </p>
      <CreateKey
        onCreated={(c) => {
          setCreated(c);
          setStatus("");
          list.reload();
        }}
      />
      {created && (
        <section class="notice" aria-labelledby="new-key-title">
          <h2 id="new-key-title">New key "{created.name}"</h2>
          <p>Copy it now: it is not shown again.</p>
          <pre tabIndex={0} aria-label="New API key">{created.api_key}</pre>
          <button
            type="button"
            class="secondary"
            onClick={() => setCreated(null)}
          >
            Done
          </button>
        </section>
      )}
      <p role="status" class="status">{status}</p>
      {list.error && <p role="alert" class="error">{list.error}</p>}
      {keys.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Created</th>
              <th scope="col">Last used</th>
              <th scope="col">State</th>
              <th scope="col">
                <span class="muted">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {keys.map((k) => (
              <tr key={k.key_id}>
                <th scope="row">{k.name}</th>
                <td>{when(k.created_at)}</td>
                <td>
                  {k.last_used_at === null ? "never" : when(k.last_used_at)}
                </td>
                <td>{keyState(k)}</td>
                <td>
                  {k.revoked_at === null && (
                    <button
                      type="button"
                      class="danger"
                      aria-label={`Revoke ${k.name}`}
                      onClick={() => setDoomed(k)}
                    >
                      Revoke
                    </button>
                  )}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
      <dialog
        ref={dialog}
        onClose={() => setDoomed(null)}
        aria-labelledby="revoke-title"
      >
        <h2 id="revoke-title">Revoke "{doomed?.name}"?</h2>
        <p>
          The key and every session token signed in with it stop working at once. A tab signed in
          with it is signed out.
        </p>
        <div class="actions">
          <button type="button" class="danger" onClick={revoke}>
            Revoke for good
          </button>
          <button
            type="button"
            class="secondary"
            onClick={() => setDoomed(null)}
          >
            Cancel
          </button>
        </div>
      </dialog>
    </>
  );
}
