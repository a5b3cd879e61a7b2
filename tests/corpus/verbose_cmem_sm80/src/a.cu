__constant__ float c[16] = {1, 2};
__device__ int g;
// sinf's reduction table: .nv.constant2._Z1kPf, "8 bytes cmem[2]".
__global__ void k(float* o) { o[0] = c[(int)o[1]] + g + sinf(o[2]); }
__global__ void k2(float* o) { __shared__ float s[32]; s[threadIdx.x] = o[threadIdx.x]; o[1] = s[(threadIdx.x + 1) % 32]; }
__global__ void k3(float* o) { o[threadIdx.x] = 3; __syncthreads(); o[1] = o[threadIdx.x ^ 1]; }
