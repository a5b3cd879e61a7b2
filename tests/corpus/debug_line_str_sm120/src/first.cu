// First compile unit, -lineinfo: an inlined helper (its inlining record
// names a string in this unit's .debug_str) and a device function nothing
// calls, whose line sequence nvlink drops with the function.
__device__ __forceinline__ float scale_in(float v, float s) { return v * s + 0.5f; }
__device__ __noinline__ float never_called(float v) { return v / 3.0f + 1.0f; }
__global__ void k_first(float *o, float s) { o[threadIdx.x] = scale_in(o[threadIdx.x], s); }
