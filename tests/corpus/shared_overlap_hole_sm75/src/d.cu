// Device functions with function-local __shared__ arrays: b (0x100), c
// (0x80), d (0x40), s (0x40). b and c meet in kBC, c and d in kCD, d never
// meets b: nvlink puts d at 0, in the hole under c (at 0x100). s only kCs
// reaches: it goes with kCs's own memory, after c's end.
__device__ double fB(double v) { __shared__ double b[32]; b[threadIdx.x & 31] = v; __syncthreads(); return b[(threadIdx.x + 1) & 31]; }
__device__ float fC(float v) { __shared__ float c[32]; c[threadIdx.x & 31] = v; __syncthreads(); return c[(threadIdx.x + 1) & 31]; }
__device__ int fD(int v) { __shared__ int d[16]; d[threadIdx.x & 15] = v; __syncthreads(); return d[(threadIdx.x + 1) & 15]; }
__device__ int fS(int v) { __shared__ int s[16]; s[threadIdx.x & 15] = v; __syncthreads(); return s[(threadIdx.x + 3) & 15]; }
