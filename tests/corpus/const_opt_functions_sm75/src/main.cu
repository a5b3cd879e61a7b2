// Device functions whose double literals ptxas puts in their own
// .nv.constant2.<fn> (fa1, fa2; fb in lib.cu): nvlink copies each block into
// the bank 2 of every kernel reaching the function, at one offset for all of
// them, and makes a bank for the kernels that have none (k_new1, k_new2).
extern __device__ double fb(double x);

__device__ __noinline__ double fa1(double x) { return x * 1.00000000001 + 1.11111111111; }

// Reaches fb in the other object: its kernels reach fb's block too.
__device__ __noinline__ double fa2(double x) { return fb(x) * 2.00000000001 + 2.22222222222; }

// Its own bank (two literals) stays at 0; fa1's block goes after it.
__global__ void k_own(double *o)
{
  double x = o[threadIdx.x];
  o[threadIdx.x] = fa1(x) * 0.123456789012345 + 7.77777777777 + x * x * 1.1111111111111;
}

// No literal of its own: a bank with fb at 8 and fa2 at 0x18, zeros between.
__global__ void k_new1(double *o) { o[threadIdx.x] = fa2(o[threadIdx.x]); }

__global__ void k_new2(double *o) { o[threadIdx.x] = fa1(o[threadIdx.x]) + fa2(o[1]); }
