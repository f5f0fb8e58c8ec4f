import { AsyncLocalStorage } from "node:async_hooks";

/**
 * How long one request waited on the store: the union of the intervals during which at least one
 * of its store calls was open (two reads in parallel count once), so the share is never larger
 * than the request itself.
 */
class StoreClock {
  ms = 0;
  private open = 0;
  private since = 0;

  enter(): void {
    if (this.open++ === 0) this.since = performance.now();
  }

  leave(): void {
    if (--this.open === 0) this.ms += performance.now() - this.since;
  }
}

const clocks = new AsyncLocalStorage<StoreClock>();

/** Runs `work` with a store clock of its own; `elapsed` reads the milliseconds spent in the store so far. */
export function withStoreClock<T>(work: (elapsed: () => number) => Promise<T>): Promise<T> {
  const clock = new StoreClock();
  return clocks.run(clock, () => work(() => clock.ms));
}

/**
 * The store, with every asynchronous call timed on the current request's clock (none outside a
 * request: then the call goes straight through). Wrapped functions are made once per method, not
 * per call; getters and plain properties are read from the store itself.
 */
export function timedStore<S extends object>(store: S): S {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target) as unknown;
      if (typeof value !== "function") return value;
      let fn = wrapped.get(prop);
      if (fn === undefined) {
        fn = timed(value as (...args: unknown[]) => unknown, target);
        wrapped.set(prop, fn);
      }
      return fn;
    },
  });
}

function timed(method: (...args: unknown[]) => unknown, target: object): (...args: unknown[]) => unknown {
  return (...args) => {
    const clock = clocks.getStore();
    if (clock === undefined) return method.apply(target, args);
    clock.enter();
    let result: unknown;
    try {
      result = method.apply(target, args);
    } catch (error) {
      clock.leave();
      throw error;
    }
    if (result instanceof Promise) {
      return result.finally(() => clock.leave());
    }
    clock.leave();
    return result;
  };
}
