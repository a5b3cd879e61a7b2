// Each object's kernel divides: ptxas gives both objects a local
// __cuda_sm3x_div_rn_noftz_f32_slowpath. On sm_100 each copy keeps its own
// .nv.capmerc.text.<helper> too (sh_info its own Mercury symbol), and its
// .nv.merc.nv.info.<helper> links to that one.
__global__ void k_a(float *p, float d) { p[threadIdx.x] = 2.0f / (p[threadIdx.x] + d); }
