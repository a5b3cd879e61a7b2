// A static kernel the host code launches: .nvHRKI lists it as
// <module prefix>*2kS* (a * in the middle); an unlaunched static kernel.
__device__ int s_var = 3;
static __global__ void kS(int *p) { p[0] = s_var; }
static __global__ void kUnused(int *p) { p[0] = 9; }
void runS(int *p) { kS<<<1, 1>>>(p); }
