// Device functions, each with a function-local __shared__ array (a
// module-level shared variable). No kernel calls both fa and fb, so nvlink
// lets their arrays overlap (both at 0); fx-fy and fy-fz meet in a kernel,
// fx and fz never, so fx's array sits beside fy's, over fz's.
__device__ float fa(float v) { __shared__ float a[32]; a[threadIdx.x & 31] = v; __syncthreads(); return a[(threadIdx.x + 1) & 31]; }
__device__ double fb(double v) { __shared__ double b[32]; b[threadIdx.x & 31] = v; __syncthreads(); return b[(threadIdx.x + 1) & 31]; }
__device__ float fx(float v) { __shared__ float x[32]; x[threadIdx.x & 31] = v; __syncthreads(); return x[(threadIdx.x + 1) & 31]; }
__device__ double fy(double v) { __shared__ double y[32]; y[threadIdx.x & 31] = v; __syncthreads(); return y[(threadIdx.x + 1) & 31]; }
__device__ int fz(int v) { __shared__ int z[48]; z[threadIdx.x % 48] = v; __syncthreads(); return z[(threadIdx.x + 1) % 48]; }
