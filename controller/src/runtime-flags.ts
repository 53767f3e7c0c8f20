// The V8 flags the controller runs with, set by its launcher
// (bin/resty-ingress.js), in one place so that whatever measures the
// controller's pipeline apart from it (bench/scale) runs it the same way.
//
// The young generation: V8 sizes it from the heap limit, i.e. from the
// machine's memory, not the container's: up to two 64 MB semi-spaces, and a
// sync of a large cluster (~100 MB of short-lived objects at 10k Ingresses)
// grows it to the full 128 MB, which stays resident. 16 MB semi-spaces cut
// the controller's resident memory at 10k Ingresses by ~90 MB; the rebuild
// (build + diff + render) measured no slower.
export const YOUNG_GENERATION_FLAG = '--max-semi-space-size=16';
