//! Graph and output file readers on arbitrary bytes: the first byte picks the format (`.gr`,
//! DIMACS, Matrix Market, SNAP, METIS, or an output file) and whether the rest goes through
//! gzip. Nothing may panic or allocate beyond libFuzzer's memory limit (counts in headers are
//! not trusted), and a graph that is accepted must be a valid CSR.
#![no_main]

use std::io::{BufReader, Write};

use flate2::Compression;
use flate2::read::MultiGzDecoder;
use flate2::write::GzEncoder;
use irgl_graph::NoProgress;
use irgl_graph::load::{Format, LoadOptions, read_from};
use libfuzzer_sys::fuzz_target;

const FORMATS: [Format; 5] = [
    Format::Gr,
    Format::Dimacs,
    Format::Mtx,
    Format::Snap,
    Format::Metis,
];

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else {
        return;
    };
    let gzip = selector & 0x80 != 0;
    let which = (selector & 0x7f) as usize % (FORMATS.len() + 1);
    let bytes: Vec<u8> = if gzip {
        let mut gz = GzEncoder::new(Vec::new(), Compression::fast());
        gz.write_all(rest).expect("in memory");
        gz.finish().expect("in memory")
    } else {
        rest.to_vec()
    };
    let reader: Box<dyn std::io::BufRead> = if gzip {
        Box::new(BufReader::new(MultiGzDecoder::new(&bytes[..])))
    } else {
        Box::new(&bytes[..])
    };
    if which == FORMATS.len() {
        let _ = irgl_graph::output::parse(reader, "fuzz.out");
        return;
    }
    let opts = LoadOptions {
        format: Some(FORMATS[which]),
        ..LoadOptions::default()
    };
    let len = (!gzip).then_some(bytes.len() as u64);
    if let Ok(loaded) = read_from(reader, "fuzz", "fuzz", len, &opts, &NoProgress) {
        if let Err(e) = loaded.csr.validate() {
            panic!("accepted an invalid graph: {e}");
        }
    }
});
