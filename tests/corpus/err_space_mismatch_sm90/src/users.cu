// The same names declared in other spaces: the array as constant memory,
// the counter as a plain device variable.
extern __constant__ float coeffs[4];
extern __device__ int hits;
__global__ void use(float* o) { o[threadIdx.x] = coeffs[threadIdx.x & 3] + hits; }
