// Links libtsbridge: TSBRIDGE_LIB_DIR names the directory holding
// libtsbridge.so (default: the repository's build/lib), and an rpath to it
// lets tests and programs run without LD_LIBRARY_PATH.
use std::env;
use std::path::PathBuf;

fn main() {
    let dir = match env::var_os("TSBRIDGE_LIB_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap()).join("../../build/lib"),
    };
    let dir = dir.canonicalize().unwrap_or(dir);
    println!("cargo:rerun-if-env-changed=TSBRIDGE_LIB_DIR");
    println!("cargo:rustc-link-search=native={}", dir.display());
    println!("cargo:rustc-link-lib=dylib=tsbridge");
    println!("cargo:rustc-link-arg=-Wl,-rpath,{}", dir.display());
}
