import { useState } from "preact/hooks";
import { describeError, signIn } from "../api.ts";

/** Exchanges an API key for a session token; the key itself is not kept. */
export function SignInPage(
  { notice, onSignedIn }: { notice: string; onSignedIn: () => void },
) {
  const [key, setKey] = useState("");
  const [error, setError] = useState("");
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError("");
    try {
      await signIn(key.trim());
      setKey("");
      onSignedIn();
    } catch (e) {
      setError(describeError(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <main id="main" class="sign-in">
      <h1>Switchyard console</h1>
      {notice && <p role="status" class="notice">{notice}</p>}
      <form onSubmit={submit}>
        <label for="api-key">API key</label>
        <input
          id="api-key"
          type="password"
          autocomplete="off"
          spellcheck={false}
          required
          placeholder="sk-router-api01-…"
          value={key}
          onInput={(e) => setKey(e.currentTarget.value)}
        />
        <p class="hint">
          Exchanged for a session token kept in this tab only (sessionStorage). Signing out revokes
          it.
        </p>
        <button type="submit" disabled={busy}>{busy ? "Signing in…" : "Sign in"}</button>
        {error && <p role="alert" class="error">{error}</p>}
      </form>
      <p>
        <a href="/docs">API reference</a>
      </p>
    </main>
  );
}
