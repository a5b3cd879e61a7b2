// Built for sm_75 only (no PTX): nothing of it links into an sm_86 image.
__global__ void k_old(int *p) { p[0] = 75; }
void launch_old(int *p) { k_old<<<1, 1>>>(p); }
