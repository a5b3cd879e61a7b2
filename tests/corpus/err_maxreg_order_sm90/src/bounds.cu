// Kernels limited by __launch_bounds__ calling another input's heavy function.
__device__ float heavy(const float* x);
__global__ void __launch_bounds__(1024) wide(const float* x, float* out) { out[threadIdx.x] = heavy(x + threadIdx.x); }
__global__ void __launch_bounds__(256, 4) narrow(const float* x, float* out) { out[threadIdx.x] = heavy(x) + 1.f; }
