/**
 * Pre-resolved metric children: prom-client's `labels()` hashes its label
 * object on every call; these nested maps resolve a label combination once
 * and hand back the same child after, without building a key string.
 */

export function memo1<A, V>(make: (a: A) => V): (a: A) => V {
  const map = new Map<A, V>();
  return (a) => {
    let v = map.get(a);
    if (v === undefined) map.set(a, v = make(a));
    return v;
  };
}

export function memo2<A, B, V>(make: (a: A, b: B) => V): (a: A, b: B) => V {
  const outer = memo1((a: A) => memo1((b: B) => make(a, b)));
  return (a, b) => outer(a)(b);
}

export function memo3<A, B, C, V>(make: (a: A, b: B, c: C) => V): (a: A, b: B, c: C) => V {
  const outer = memo1((a: A) => memo2((b: B, c: C) => make(a, b, c)));
  return (a, b, c) => outer(a)(b, c);
}

const METHODS = new Set(["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]);

/** A request method as a label: anything a client invents counts as `other`. */
export function methodLabel(method: string): string {
  return METHODS.has(method) ? method : "other";
}

/** A label value chosen by code, not by clients: anything else counts as `other`. */
export function nameLabel(value: string): string {
  return /^[a-z][a-z0-9_]{0,31}$/.test(value) ? value : "other";
}
