fn main() {
    for p in std::env::args().skip(1) {
        let d = std::fs::read(&p).unwrap();
        let c = culdb::cubin::read::parse(&d).unwrap();
        let w = culdb::cubin::write::write(&c).unwrap();
        let c2 = culdb::cubin::read::parse(&w).unwrap();
        println!("{p}: model_eq={} bytes_eq={} {} {}", c == c2, w == d, d.len(), w.len());
        if w != d {
            let i = w.iter().zip(&d).position(|(a, b)| a != b);
            println!("  first diff {:?}", i);
        }
    }
}
