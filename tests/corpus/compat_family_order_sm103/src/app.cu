// Built for sm_103.
__device__ float blend(const float* p, int n);
__global__ void mix(const float* p, float* o, int n) { o[threadIdx.x] = blend(p, n); }
