// Calls the operations only through the table: an indirect call of
// `float (float)`.
typedef float (*Op)(float);
extern __device__ Op ops[2];
__global__ void run_op(float *p, int i) { p[threadIdx.x] = ops[i & 1](p[threadIdx.x]); }
