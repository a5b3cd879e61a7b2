// Kernels limited by __maxnreg__ calling another input's heavy function.
__device__ float heavy(const float* x);
__global__ void __maxnreg__(32) tight(const float* x, float* out) { out[threadIdx.x] = heavy(x + threadIdx.x); }
__global__ void __maxnreg__(64) roomy(const float* x, float* out) { out[threadIdx.x] = heavy(x) * 2.f; }
