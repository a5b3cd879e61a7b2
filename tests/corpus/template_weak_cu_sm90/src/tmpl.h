// A function template and an inline function: every TU that uses them emits
// a .weak definition, so both cubins carry weak copies.
template <typename T>
__device__ __noinline__ T mix(T a, T b) { return a * 3 + b; }

__device__ __noinline__ inline int shared_inline(int x) { return x ^ 0x55; }
