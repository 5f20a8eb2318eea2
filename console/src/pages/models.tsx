import { useState } from "preact/hooks";
import { api, providerKeys, type Schemas } from "../api.ts";
import { count, money } from "../format.ts";
import { useLoad } from "../load.ts";

type Model = Schemas["ModelDescriptor"];

function auth(a: Model["auth"]): string {
  return typeof a === "string" ? a.replaceAll("_", " ") : `custom (${a.custom})`;
}

function capabilities(m: Model): string {
  const on = Object.entries(m.capabilities).filter(([, v]) => v === true).map(([k]) => k);
  return on.length === 0 ? "none" : on.join(", ").replaceAll("_", " ");
}

/** Provider keys for this page's requests: held in memory, never stored or logged. */
function ProviderKeys(
  { providers, onApply }: { providers: Schemas["ProviderDescriptor"][]; onApply: () => void },
) {
  const [draft, setDraft] = useState<Record<string, string>>(
    () => Object.fromEntries(providerKeys),
  );
  const keyed = providers.filter((p) => !p.local);
  return (
    <form
      class="panel"
      onSubmit={(e) => {
        e.preventDefault();
        for (const [id, key] of Object.entries(draft)) {
          if (key.trim() === "") providerKeys.delete(id);
          else providerKeys.set(id, key.trim());
        }
        onApply();
      }}
    >
      <h2>Provider keys</h2>
      <p class="hint">
        Sent in <code>X-Router-Provider-&lt;id&gt;-Api-Key</code>{" "}
        on this page's listing and preview requests only; kept in memory and forgotten on reload or
        sign-out.
      </p>
      <div class="grid">
        {keyed.map((p) => (
          <label key={p.id}>
            {p.display_name} ({p.id})
            <input
              type="password"
              autocomplete="off"
              spellcheck={false}
              value={draft[p.id] ?? ""}
              onInput={(e) => setDraft({ ...draft, [p.id]: e.currentTarget.value })}
            />
          </label>
        ))}
      </div>
      <button type="submit">Use these keys</button>
    </form>
  );
}

/** The catalog as this caller's keys see it, and the providers that could not be listed. */
export function ModelsPage() {
  const [round, setRound] = useState(0);
  const providers = useLoad(() => api("get", "/api/v1/llm/providers"), []);
  const models = useLoad(
    () => api("get", "/api/v1/llm/models", { withProviderKeys: true }),
    [round],
  );
  const list = models.data?.models ?? [];
  return (
    <>
      <h1>Models and providers</h1>
      {providers.data && (
        <ProviderKeys
          providers={providers.data.providers}
          onApply={() => setRound(round + 1)}
        />
      )}
      {providers.data && (
        <section aria-labelledby="providers-title">
          <h2 id="providers-title">Providers</h2>
          <ul class="inline-list">
            {providers.data.providers.map((p) => (
              <li key={p.id}>
                {p.display_name} <span class="muted">({p.id}, {p.local ? "local" : "remote"})</span>
              </li>
            ))}
          </ul>
        </section>
      )}
      {models.error && <p role="alert" class="error">{models.error}</p>}
      {(models.data?.unavailable ?? []).length > 0 && (
        <section aria-labelledby="unavailable-title">
          <h2 id="unavailable-title">Unavailable providers</h2>
          <ul class="unavailable">
            {models.data!.unavailable!.map((u) => (
              <li key={u.provider}>
                <strong>{u.provider}</strong>: {u.reason.replaceAll("_", " ")}
                {u.message && <span class="muted">— {u.message}</span>}
              </li>
            ))}
          </ul>
        </section>
      )}
      <section aria-labelledby="models-title">
        <h2 id="models-title">Models ({list.length})</h2>
        <div class="table-scroll" tabIndex={0} aria-label="Models table">
          <table>
            <thead>
              <tr>
                <th scope="col">Model</th>
                <th scope="col">Where</th>
                <th scope="col">Auth</th>
                <th scope="col">Context window</th>
                <th scope="col">Max output</th>
                <th scope="col">Input / 1M tokens</th>
                <th scope="col">Output / 1M tokens</th>
                <th scope="col">Capabilities</th>
              </tr>
            </thead>
            <tbody>
              {list.map((m) => (
                <tr key={`${m.provider}/${m.model}`}>
                  <th scope="row">
                    {m.provider}/{m.model}
                    {m.display_name && <div class="muted">{m.display_name}</div>}
                  </th>
                  <td>{m.local ? "local" : "remote"}</td>
                  <td>{auth(m.auth)}</td>
                  <td>{count(m.max_context_tokens)}</td>
                  <td>{m.max_output_tokens == null ? "unknown" : count(m.max_output_tokens)}</td>
                  <td>{money(m.input_cost_per_million_tokens)}</td>
                  <td>{money(m.output_cost_per_million_tokens)}</td>
                  <td>{capabilities(m)}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      </section>
    </>
  );
}
