//! System libraries: nvlink links a member of `libcudadevrt.a` only while a
//! function the link references is left undefined.
//!
//! What nvlink 13.5 does (checked by hand, then pinned by the corpus cases
//! `cudadevrt_unused_sm90`, `cudadevrt_fake_data_ref_sm90` and
//! `cudadevrt_fake_func_ref_sm90`):
//!
//! * An archive is a system library when its path, as given or as `-l` found
//!   it, contains `cudadevrt` (case-sensitive, anywhere: a folder
//!   `cudadevrt_dir/libz.a` counts, `libCUDADEVRT.a` does not).
//! * Its host-object members are read, but one is linked only when, as it
//!   is read, a function that an input read before it references is not
//!   defined by any (the driver's names aside), whether or not the member
//!   defines it: a call from dead code to a function nothing defines pulls
//!   every member, and the link then succeeds with them
//!   (cudadevrt_open_function_sm90). A reference to a variable does not
//!   pull it: the link fails with `Undefined reference` even though the
//!   member defines it. nvlink reads `-l` libraries after the files.
//! * A member that is linked is then an input like any other (its kernels,
//!   variables and host lists count as any host object's).
//! * `-keep-system-libraries` links every member, as for other archives,
//!   but their host lists still count as a system library's
//!   (cudadevrt_keep_system_libs_sm90).
//!
//! A program that uses no dynamic parallelism therefore links nothing of
//! libcudadevrt, which is what nvcc's `-lcudadevrt` on every device link
//! relies on.

use std::collections::BTreeSet;

use crate::cubin::consts::{SHN_UNDEF, STB_GLOBAL, STB_LOCAL, STT_FUNC, STT_SECTION};
use crate::cubin::read;

/// Whether nvlink treats the archive at `path` as a system library.
pub fn is_system_library(path: &str) -> bool {
    path.contains("cudadevrt")
}

/// Undefined functions nvlink leaves in its output for the CUDA driver,
/// without a word: a fixed list of names (the C library calls, the CDP
/// `cnp*` entry points, the device-side graph, fabric and subgrid API; read
/// from nvlink 13.5 and checked by linking each name: corpus
/// `driver_names_sm90`; `cudaGraphSetConditional` in the real-world sample
/// graphConditionalNodes) matched exactly, and the `__cuda_syscall*` entry
/// points (`dynpar_cudadevrt_sm90`). `mallocx` or `cudaFooBar` are reported.
pub fn driver_syscall(name: &str) -> bool {
    const DRIVER_NAMES: &[&str] = &[
        "vprintf",
        "free",
        "malloc",
        "vfprintf",
        "__assertfail",
        "__profile",
        "cnpGetParameterBuffer",
        "cnpLaunchDevice",
        "cnpCtxSynchronize",
        "cnpFuncGetAttribute",
        "cnpStreamCreate",
        "cnpStreamDestroy",
        "cnpStreamWaitEvent",
        "cnpEventCreate",
        "cnpEventRecord",
        "cnpEventDestroy",
        "cnpDeviceGetName",
        "cnpDeviceGetAttribute",
        "cnpGetDeviceCount",
        "cnpGetDevice",
        "cnpGetLastError",
        "cnpSetLastError",
        "cnpGetCacheConfig",
        "cnpGetSharedMemConfig",
        "cnpGetLimit",
        "cnpDeviceGetTotalMem",
        "cnpGetParameterBufferV2",
        "cnpLaunchDeviceV2",
        "cudaGraphLaunch",
        "cudaGraphSetConditional",
        "cudaGraphKernelNodeSetParam",
        "cudaGraphKernelNodeSetGridDim",
        "cudaGraphKernelNodeSetEnabled",
        "cudaFabricOpErrorStatusCount",
        "cudaFabricOpErrorStatusGet",
        "cudaResizeSharedMemory",
        "cudaDeviceMemcpyAsync",
        "cudaDeviceMemcpyBatchAsync",
        "cudaGraphKernelNodeUpdatesApply",
        "cudaSubgridSynchronousWorkspaceInitialize",
        "cudaSubgridSynchronousWorkspaceCompleteAndFetchWorkItem",
        "cudaSubgridSynchronousWorkspaceAdvanceWorkset",
        "cudaSubgridSynchronousWorkspaceGetWorksetUserData",
        "cudaSubgridWarpSpecializedWorkspaceInitialize",
        "cudaSubgridWarpSpecializedWorkspaceAdvanceWorkset",
        "cudaSubgridWarpSpecializedWorkspaceGetWorksetUserData",
        "cudaSubgridWarpSpecializedWorkspaceFetchWorkItem",
        "cudaSubgridWarpSpecializedWorkspaceWaitOnWorkItemDependencies",
        "cudaSubgridWarpSpecializedWorkspaceCompleteWorkItem",
        "cudaSubgridScheduleManageWarpSpecializedWorkspaceAndDependencies",
    ];
    DRIVER_NAMES.contains(&name) || name.starts_with("__cuda_syscall")
}

/// Function names the inputs read so far define and reference.
#[derive(Debug, Clone, Default, serde::Serialize)]
pub struct FunctionNeeds {
    defined: BTreeSet<String>,
    referenced: BTreeSet<String>,
    /// Global (not weak) names of any kind defined and referenced so far.
    globals_defined: BTreeSet<String>,
    globals_referenced: BTreeSet<String>,
}

impl FunctionNeeds {
    /// Adds the functions one input cubin defines and references.
    pub fn add(&mut self, cubin: &[u8]) {
        let Ok(c) = read::parse(cubin) else { return };
        for s in &c.symbols {
            if s.binding == STB_GLOBAL && !s.name.is_empty() && s.sym_type != STT_SECTION {
                if s.shndx == SHN_UNDEF {
                    self.globals_referenced.insert(s.name.clone());
                } else {
                    self.globals_defined.insert(s.name.clone());
                }
            }
            if s.sym_type != STT_FUNC || s.binding == STB_LOCAL || s.name.is_empty() {
                continue;
            }
            if s.shndx == SHN_UNDEF {
                self.referenced.insert(s.name.clone());
            } else {
                self.defined.insert(s.name.clone());
            }
        }
    }

    /// Whether a global name is referenced and not defined so far (the
    /// driver's names and nvlink's own `.nv.*` ones aside).
    pub fn has_undefined(&self) -> bool {
        self.globals_referenced
            .iter()
            .any(|n| !self.globals_defined.contains(n) && !n.starts_with('.') && !driver_syscall(n))
    }

    /// The first function (by name) referenced and not defined so far, the
    /// driver's names aside: what makes nvlink link a system library's
    /// member.
    pub fn open_function(&self) -> Option<&str> {
        self.referenced
            .iter()
            .find(|n| !self.defined.contains(*n) && !n.starts_with('.') && !driver_syscall(n))
            .map(String::as_str)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn system_library_by_path() {
        assert!(is_system_library("/usr/local/cuda/lib64/libcudadevrt.a"));
        assert!(is_system_library("cudadevrt.a"));
        assert!(is_system_library("x/cudadevrt_dir/libz.a"));
        assert!(!is_system_library("libCUDADEVRT.a"));
        assert!(!is_system_library("libcudadev.a"));
    }
}
