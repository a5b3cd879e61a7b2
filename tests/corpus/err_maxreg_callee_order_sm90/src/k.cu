// Two kernels limited to 24 registers, each calling another object's
// function that needs more: kB (listed second) calls heavy1.
__device__ float heavy1(const float* p);
__device__ float heavy2(const float* p);
__global__ void __maxnreg__(24) kA(const float* p, float* o) { o[threadIdx.x] = heavy1(p); }
__global__ void __maxnreg__(24) kB(const float* p, float* o) { o[threadIdx.x] = heavy2(p); }
