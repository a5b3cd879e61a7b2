// Built for LTO: a function only the plain object calls, one nothing
// calls, one a kernel here calls out of line.
__device__ float twice(float x) { return x * 2.f; }
__device__ float thrice(float x) { return x * 3.f; }
__device__ __noinline__ float quint(float x) { return x * 5.f; }
__global__ void lib_kernel(float* p) { p[0] = twice(p[1]) + quint(p[2]); }
