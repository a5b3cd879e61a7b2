__global__ void child_a(int* p) { p[0] = 1; }
__global__ void child_b(int* p) { p[0] = 2; }
