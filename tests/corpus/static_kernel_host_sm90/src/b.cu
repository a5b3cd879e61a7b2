// An external kernel the host launches and one it does not.
__global__ void kB(int *p) { p[0] = 1; }
__global__ void kB2(int *p) { p[0] = 2; }
void runB(int *p) { kB<<<1, 1>>>(p); }
