import { api } from "../api.ts";
import { useLoad } from "../load.ts";
import { policyToml } from "../policy_toml.ts";

const policyHref = (name: string, version?: number) =>
  `#/policies/${encodeURIComponent(name)}${version === undefined ? "" : `/${version}`}`;

/** The caller's named policies, each with its latest version. */
function PolicyList() {
  const list = useLoad(() => api("get", "/api/v1/policies"), []);
  const policies = list.data?.policies ?? [];
  return (
    <>
      <h1>Policies</h1>
      <p class="hint">
        Store one with{" "}
        <code>switchyard policy push policy.toml --name NAME</code>; each push is a new version.
        {" "}
        <code>switchyard chat</code> without <code>--policy</code> uses the one named{" "}
        <code>default</code>.
      </p>
      {list.error && <p role="alert" class="error">{list.error}</p>}
      {list.data && policies.length === 0 && <p>No stored policies.</p>}
      {policies.length > 0 && (
        <table>
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col">Latest version</th>
              <th scope="col">Stored</th>
            </tr>
          </thead>
          <tbody>
            {policies.map((p) => (
              <tr key={p.name}>
                <th scope="row">
                  <a href={policyHref(p.name)}>{p.name}</a>
                </th>
                <td>{p.version}</td>
                <td>{new Date(p.created_at).toLocaleString()}</td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}

/** One version of a named policy (the latest unless the location names one), as TOML. */
function PolicyVersion({ name, version }: { name: string; version?: number }) {
  const shown = useLoad(
    () =>
      version === undefined
        ? api("get", "/api/v1/policies/{name}", { params: { name } })
        : api("get", "/api/v1/policies/{name}/versions/{version}", {
          params: { name, version: String(version) },
        }),
    [name, version],
  );
  const latest = useLoad(() => api("get", "/api/v1/policies/{name}", { params: { name } }), [
    name,
  ]);
  const versions = latest.data
    ? Array.from({ length: latest.data.version }, (_, i) => latest.data!.version - i)
    : [];
  return (
    <>
      <p>
        <a href="#/policies">All policies</a>
      </p>
      <h1>Policy {name}</h1>
      {shown.error && <p role="alert" class="error">{shown.error}</p>}
      {versions.length > 1 && (
        <nav aria-label="Versions">
          <ul class="inline-list">
            {versions.map((v) => (
              <li key={v}>
                <a
                  href={policyHref(name, v)}
                  aria-current={shown.data?.version === v ? "page" : undefined}
                >
                  version {v}
                </a>
              </li>
            ))}
          </ul>
        </nav>
      )}
      {shown.data && (
        <section aria-labelledby="policy-title">
          <h2 id="policy-title">
            Version {shown.data.version}{" "}
            <span class="muted">stored {new Date(shown.data.created_at).toLocaleString()}</span>
          </h2>
          <pre tabIndex={0} aria-label="Policy as TOML">{policyToml(shown.data.policy)}</pre>
        </section>
      )}
    </>
  );
}

export function PoliciesPage({ name, version }: { name?: string; version?: string }) {
  if (name === undefined) return <PolicyList />;
  const n = version !== undefined && /^[1-9]\d*$/.test(version) ? Number(version) : undefined;
  return <PolicyVersion name={name} version={n} />;
}
