use culdb::cubin::build::{CubinBuilder, Def, Sym, uidx_bytes};
use culdb::cubin::consts::SHT_CUDA_UDT_ENTRY;
fn main() {
    let mut b = CubinBuilder::new(90);
    b.ptxas_notes(90);
    b.function("f0", vec![0u8; 128], Sym::global());
    let vars = [
        ("u0", vec![1u8; 8], 1u64, 2u64),
        ("u1", vec![2u8; 16], 3, 4),
        ("u2", vec![3u8; 8], 5, 6),
    ];
    let (t, _, e) = b.udt_slots(&vars);
    b.symbol("g0", Sym::global().object().sized(8), Def::In(t), 16);
    b.entry_table(".nv.udt.entry", SHT_CUDA_UDT_ENTRY, &e[..2]);
    std::fs::write("/tmp/probe/a.cubin", b.to_bytes().unwrap()).unwrap();
    std::fs::write(
        "/tmp/probe/a.uidx",
        uidx_bytes(1, 0, &[], 32, &[(3, 4, 0), (1, 2, 24)], None),
    )
    .unwrap();
}
