// Second compile unit, -lineinfo: its line program header ends with the
// offset of its strings in the output .debug_str (after the first unit's).
__device__ __forceinline__ int twist_second(int v, int k) { return (v << k) ^ (v >> 3); }
__device__ __noinline__ int also_dead(int v) { return v * 7 - 2; }
__global__ void k_second(int *o, int k) { o[threadIdx.x] = twist_second(o[threadIdx.x], k); }
