// The same, as an archive member.
__global__ void k_lib_old(int *p) { p[0] = 76; }
void launch_lib_old(int *p) { k_lib_old<<<1, 1>>>(p); }
