// Reads sys_var only: a variable does not pull a system library's member.
extern __device__ int sys_var;
__global__ void kApp(int *p) { p[0] = sys_var; }
void runApp(int *p) { kApp<<<1, 1>>>(p); }
