// A variable before a function, and names the first object already missed.
extern __device__ int delta_var;
__device__ float delta_fn(float);
__device__ float alpha_fn(float);
extern __device__ int alpha_var;
__global__ void three(float* o) { o[0] = delta_var + delta_fn(o[2]) + alpha_var + alpha_fn(1.f); }
