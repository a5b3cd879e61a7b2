// The callee, in its own input.
__device__ __noinline__ int helper(int v) { return v * v + 7; }
