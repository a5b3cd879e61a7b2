// A second sm_120a object, whose kernel calls a device function.
__device__ __noinline__ float twice(float x) { return x * 2.0f; }
__global__ void k_call(float *a) { a[threadIdx.x] = twice(a[threadIdx.x]); }
