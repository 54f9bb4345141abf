import { BudgetError } from './budget-error.js';

/**
 * Told of each refusal of a budget: the {@link BudgetError} the call is about to be rejected with.
 * Called before the call's rejection, in the order added; must return at once and not throw (an
 * error it throws is ignored).
 */
type RefusalListener = (error: BudgetError) => void;

// Per budget tree (a budget and its children share one object): its listeners. Weak, so a tree
// that is dropped takes its listeners with it.
const listeners = new WeakMap<object, Set<RefusalListener>>();

/** Adds `listener` to the tree's; returns a function that removes it again (once). */
export function addRefusalListener(tree: object, listener: RefusalListener): () => void {
  if (typeof listener !== 'function') throw new TypeError('listener must be a function (error) => void');
  let set = listeners.get(tree);
  if (set === undefined) {
    set = new Set();
    listeners.set(tree, set);
  }
  // Each addition its own entry: the same function added twice is told twice and removed once per remover.
  const entry: RefusalListener = (error) => listener(error);
  set.add(entry);
  return () => {
    set.delete(entry);
  };
}

/** Whether anyone listens for the tree's refusals. */
export function hasRefusalListeners(tree: object): boolean {
  return (listeners.get(tree)?.size ?? 0) > 0;
}

/**
 * `reserve()`'s answer (a handle, or a promise of one), telling the tree's listeners of the
 * {@link BudgetError} it throws or rejects with. With no listener it is `reserve()` itself.
 */
export function toldOfRefusals<T>(tree: object, reserve: () => T | Promise<T>): T | Promise<T> {
  const set = listeners.get(tree);
  if (set === undefined || set.size === 0) return reserve();
  const tell = (error: unknown): never => {
    // The budget's own refusals only (a cancelled call's ChatError is not one).
    if (error instanceof BudgetError) {
      for (const listener of [...set]) {
        try {
          listener(error);
        } catch {
          // A listener must not change what the call gets.
        }
      }
    }
    throw error;
  };
  let answer: T | Promise<T>;
  try {
    answer = reserve();
  } catch (error) {
    return tell(error);
  }
  return answer instanceof Promise ? answer.catch(tell) : answer;
}
