/// <reference lib="dom" />
/**
 * The console's shell: sign-in when there is no token, else a header with the navigation and
 * the page the location hash names (`#/sessions`, `#/sessions/<id>`, `#/usage/<id>`,
 * `#/models`, `#/preview/<id>`, `#/policies`, `#/policies/<name>[/<version>]`, `#/keys`). Hash routes keep
 * every page on the one served file.
 */
import { render } from "preact";
import { useEffect, useState } from "preact/hooks";
import "uplot/dist/uPlot.min.css";
import "./style.css";
import { describeError, signOut, token, whenSignedOut } from "./api.ts";
import { KeysPage } from "./pages/keys.tsx";
import { ModelsPage } from "./pages/models.tsx";
import { PoliciesPage } from "./pages/policies.tsx";
import { PreviewPage } from "./pages/preview.tsx";
import { SessionPage } from "./pages/session.tsx";
import { SessionsPage } from "./pages/sessions.tsx";
import { SignInPage } from "./pages/sign_in.tsx";
import { UsagePage } from "./pages/usage.tsx";

function useHash(): string {
  const [hash, setHash] = useState(location.hash);
  useEffect(() => {
    const changed = () => setHash(location.hash);
    addEventListener("hashchange", changed);
    return () => removeEventListener("hashchange", changed);
  }, []);
  return hash;
}

const NAV = [
  { href: "#/sessions", label: "Sessions", section: "sessions" },
  { href: "#/usage", label: "Usage", section: "usage" },
  { href: "#/models", label: "Models and providers", section: "models" },
  { href: "#/preview", label: "Preview", section: "preview" },
  { href: "#/policies", label: "Policies", section: "policies" },
  { href: "#/keys", label: "API keys", section: "keys" },
];

function Page({ parts }: { parts: string[] }) {
  const [section, id, more] = parts;
  switch (section) {
    case "usage":
      return <UsagePage sessionId={id} />;
    case "models":
      return <ModelsPage />;
    case "preview":
      return <PreviewPage sessionId={id} />;
    case "policies":
      return <PoliciesPage name={id} version={more} />;
    case "keys":
      return <KeysPage />;
    default:
      return id ? <SessionPage sessionId={id} /> : <SessionsPage />;
  }
}

function App() {
  const hash = useHash();
  const [signedIn, setSignedIn] = useState(token() !== null);
  const [notice, setNotice] = useState("");
  useEffect(() =>
    whenSignedOut((why) => {
      setNotice(`Signed out: ${why}`);
      setSignedIn(false);
    }), []);
  if (!signedIn) {
    return (
      <SignInPage
        notice={notice}
        onSignedIn={() => {
          setNotice("");
          setSignedIn(true);
        }}
      />
    );
  }
  const parts = hash.replace(/^#\/?/, "").split("/").filter(Boolean).map(decodeURIComponent);
  const section = parts[0] ?? "sessions";
  const leave = async () => {
    try {
      await signOut();
      setNotice("Signed out: the token is revoked.");
    } catch (error) {
      setNotice(`Signed out here; the service said: ${describeError(error)}`);
    }
    setSignedIn(false);
  };
  return (
    <>
      <a class="skip" href="#main">Skip to content</a>
      <header class="top">
        <span class="brand">Switchyard</span>
        <nav aria-label="Main">
          <ul>
            {NAV.map((n) => (
              <li key={n.href}>
                <a href={n.href} aria-current={section === n.section ? "page" : undefined}>
                  {n.label}
                </a>
              </li>
            ))}
            <li>
              <a href="/docs">API reference</a>
            </li>
          </ul>
        </nav>
        <button type="button" class="secondary" onClick={leave}>Sign out</button>
      </header>
      <main id="main" tabIndex={-1}>
        <Page parts={parts} />
      </main>
    </>
  );
}

render(<App />, document.getElementById("app")!);
