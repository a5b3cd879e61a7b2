// Refers to functions and variables no input defines.
__device__ float gamma_fn(float);
__device__ float alpha_fn(float);
extern __device__ int beta_var;
extern __device__ int alpha_var;
extern __constant__ int table_c;
__global__ void one(float* o) { o[0] = gamma_fn(o[1]) + beta_var; }
__global__ void two(float* o) { o[0] = alpha_fn(o[1]) + alpha_var + table_c + beta_var; }
