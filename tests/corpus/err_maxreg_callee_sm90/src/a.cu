__device__ float heavy(const float* x);
__global__ void __maxnreg__(32) k(const float* x, float* out) { out[threadIdx.x] = heavy(x + threadIdx.x); }
