// One kernel limited to 24 registers calling two functions of another
// object that each need more.
__device__ float heavy1(const float* p);
__device__ float heavy2(const float* p);
__global__ void __maxnreg__(24) both(const float* p, float* o) { o[threadIdx.x] = heavy1(p) + heavy2(p); }
