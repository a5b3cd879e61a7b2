// Refers to `helper_k` before its object is merged: an address in data.
extern __global__ void helper_k(int *p);
__device__ void *launch_table[] = {(void *)helper_k};
