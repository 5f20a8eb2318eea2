import { useCallback, useEffect, useState } from "preact/hooks";
import { describeError } from "./api.ts";

export interface Loaded<T> {
  data: T | null;
  error: string;
  loading: boolean;
  reload(): void;
}

/** Runs `load` when `deps` change (and on `reload`), keeping the latest answer or error. */
export function useLoad<T>(load: () => Promise<T>, deps: unknown[]): Loaded<T> {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState("");
  const [loading, setLoading] = useState(true);
  const [round, setRound] = useState(0);
  useEffect(() => {
    let current = true;
    setLoading(true);
    load().then(
      (value) => current && (setData(value), setError("")),
      (e) => current && setError(describeError(e)),
    ).finally(() => current && setLoading(false));
    return () => void (current = false);
  }, [...deps, round]);
  return { data, error, loading, reload: useCallback(() => setRound((r) => r + 1), []) };
}
