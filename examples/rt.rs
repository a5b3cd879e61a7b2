fn main() {
    for p in std::env::args().skip(1) {
        let d = std::fs::read(&p).unwrap();
        let Ok(c) = culdb::cubin::read::parse(&d) else { println!("{p}: not parsed"); continue };
        let w = culdb::cubin::write::write(&c).unwrap();
        if w != d {
            let i = w.iter().zip(&d).position(|(a, b)| a != b).unwrap_or(w.len().min(d.len()));
            println!("{p}: len {} vs {} first diff {i:#x}", d.len(), w.len());
        }
    }
}
