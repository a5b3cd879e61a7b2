// Only a variable is missing here.
extern __device__ int omega_var;
__global__ void four(int* o) { o[0] = omega_var; }
