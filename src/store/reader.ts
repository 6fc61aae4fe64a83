/**
 * A read-only view of a store: the reading methods alone, bound to the store. What tools get, so a
 * tool cannot write even by casting.
 */
import type { StoreReader } from "./port.js";

export function readOnly(store: StoreReader): StoreReader {
  return {
    list: (options) => store.list(options),
    active: () => store.active(),
    sessionHistory: () => store.sessionHistory(),
    locate: (id) => store.locate(id),
    ids: () => store.ids(),
    resolveId: (prefix) => store.resolveId(prefix),
    resolveTarget: (idOrPrefix) => store.resolveTarget(idOrPrefix),
    load: (id) => store.load(id),
    readMeta: (id) => store.readMeta(id),
    revision: (id) => store.revision(id),
    reviewSource: (id) => store.reviewSource(id),
    reviewInfo: (id) => store.reviewInfo(id),
    openReviews: () => store.openReviews(),
    advisorState: (id) => store.advisorState(id),
    tokenCounter: (id) => store.tokenCounter(id),
  };
}
