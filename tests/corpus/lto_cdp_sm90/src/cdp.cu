// Dynamic parallelism under LTO: the IR calls libcudadevrt's launch
// functions, so the LTO cubin is linked with the real library.
__global__ void kChild(int *p) { p[threadIdx.x] += 1; }
__global__ void kParent(int *p) { kChild<<<1, 32>>>(p); }
void launch(int *p) { kParent<<<1, 1>>>(p); }
