// The only kernel the host launches.
__global__ void k_host(int *p) { p[0] = 2; }
void launch(int *p) { k_host<<<1, 1>>>(p); }
