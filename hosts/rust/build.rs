// Finds libtsbridge (docs/install.md, "Rust"); the first that applies:
//
// 1. TSBRIDGE_LIB_DIR, when set: the directory holding libtsbridge.so (a
//    choice made for this build wins).
// 2. The pkg-config program: `pkg-config --libs-only-L --libs-only-l tsbridge`
//    and its libdir (Debian's libtsbridge-dev; PKG_CONFIG_PATH=PREFIX/lib/pkgconfig
//    for a CMake install; PKG_CONFIG names another program). No crate: the
//    program itself.
// 3. The repository's build: ../../build/lib beside this crate.
//
// Neither: the build stops, saying what to install. It links -ltsbridge with
// an rpath to the library's directory unless that is a system library
// directory, so tests and programs run without LD_LIBRARY_PATH. Which route
// it took is the build script's output, as for other -sys crates: quiet on
// success, shown by `cargo build -vv` (and kept in target/*/build/tsbridge-*/output).
// For the build scripts of crates that depend on this one (`links = "tsbridge"`):
// DEP_TSBRIDGE_FOUND_BY, DEP_TSBRIDGE_LIB_DIR, DEP_TSBRIDGE_INCLUDE and, when
// the library is outside the system directories, DEP_TSBRIDGE_RPATH (cargo
// passes link arguments to this crate's own targets only, so a program
// depending on it adds that rpath itself).
use std::env;
use std::path::{Path, PathBuf};
use std::process::Command;

struct Found {
    found_by: &'static str,
    version: String,
    search: Vec<PathBuf>,
    libs: Vec<String>,
    lib_dir: PathBuf,
    include: Option<PathBuf>,
}

/// Whether the dynamic linker searches `dir` without an rpath: /lib, /usr/lib,
/// /lib64, /usr/lib64 and the multiarch /usr/lib/<triplet>.
fn is_system_libdir(dir: &Path) -> bool {
    let s = dir.to_string_lossy();
    if ["/lib", "/lib64", "/usr/lib", "/usr/lib64"].contains(&s.as_ref()) {
        return true;
    }
    match (dir.parent(), dir.file_name()) {
        (Some(parent), Some(name)) => {
            (parent == Path::new("/lib") || parent == Path::new("/usr/lib"))
                && name.to_string_lossy().contains("-linux-")
        }
        _ => false,
    }
}

fn canonical(dir: PathBuf) -> PathBuf {
    dir.canonicalize().unwrap_or(dir)
}

/// pkg-config's answer: Err(None) when the program is missing, Err(Some(why))
/// when it finds no tsbridge.
fn pkg_config(args: &[&str]) -> Result<String, Option<String>> {
    let program = env::var_os("PKG_CONFIG").unwrap_or_else(|| "pkg-config".into());
    let out = Command::new(program).args(args).arg("tsbridge").output().map_err(|_| None)?;
    if !out.status.success() {
        let why = String::from_utf8_lossy(&out.stderr).trim().to_string();
        return Err(Some(why));
    }
    Ok(String::from_utf8_lossy(&out.stdout).trim().to_string())
}

fn from_pkg_config() -> Result<Found, Option<String>> {
    let version = pkg_config(&["--modversion"])?;
    let mut search = Vec::new();
    for flag in pkg_config(&["--libs-only-L"])?.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            search.push(PathBuf::from(dir));
        }
    }
    let mut libs = Vec::new();
    for flag in pkg_config(&["--libs-only-l"])?.split_whitespace() {
        if let Some(lib) = flag.strip_prefix("-l") {
            libs.push(lib.to_string());
        }
    }
    let lib_dir = canonical(PathBuf::from(pkg_config(&["--variable=libdir"])?));
    let include = canonical(PathBuf::from(pkg_config(&["--variable=includedir"])?));
    Ok(Found { found_by: "pkg-config", version, search, libs, lib_dir, include: Some(include) })
}

fn from_dir(found_by: &'static str, dir: PathBuf, include: Option<PathBuf>) -> Found {
    let dir = canonical(dir);
    Found {
        found_by,
        version: String::new(),
        search: vec![dir.clone()],
        libs: vec!["tsbridge".to_string()],
        lib_dir: dir,
        include: include.filter(|d| d.is_dir()).map(canonical),
    }
}

fn not_found(why: &str) -> ! {
    panic!(
        "\ntsbridge: {}\n\
         The crate links an installed libtsbridge. Install one, then build again:\n  \
         - Debian: apt-get install libtsbridge-dev pkg-config\n  \
         - a CMake install: cmake --install build --prefix PREFIX, then\n    \
         PKG_CONFIG_PATH=PREFIX/lib/pkgconfig cargo build\n\
         Or set TSBRIDGE_LIB_DIR to the directory holding libtsbridge.so (read before\n\
         pkg-config), or build the repository (its build/lib, read last).\n\
         (docs/install.md, \"Rust\")\n",
        why
    )
}

fn main() {
    for var in ["TSBRIDGE_LIB_DIR", "PKG_CONFIG", "PKG_CONFIG_PATH", "PKG_CONFIG_LIBDIR",
                "PKG_CONFIG_SYSROOT_DIR"] {
        println!("cargo:rerun-if-env-changed={}", var);
    }
    println!("cargo:rerun-if-changed=build.rs");
    let manifest = PathBuf::from(env::var_os("CARGO_MANIFEST_DIR").unwrap());
    let repository = manifest.join("../..");

    let found = if let Some(dir) = env::var_os("TSBRIDGE_LIB_DIR") {
        let dir = PathBuf::from(dir);
        if !dir.join("libtsbridge.so").exists() {
            not_found(&format!("TSBRIDGE_LIB_DIR: no libtsbridge.so in '{}'", dir.display()));
        }
        // Its headers, when the directory is an install's lib/ or a build's.
        let include = dir.join("../include");
        let include = if include.join("tsbridge/tsbridge.h").exists() {
            include
        } else {
            repository.join("sdk/include")
        };
        from_dir("TSBRIDGE_LIB_DIR", dir, Some(include))
    } else {
        match from_pkg_config() {
            Ok(found) => found,
            Err(why) => {
                let build = repository.join("build/lib");
                if !build.join("libtsbridge.so").exists() {
                    not_found(&match why {
                        None => "no pkg-config program, no TSBRIDGE_LIB_DIR, no repository build"
                            .to_string(),
                        Some(why) => format!(
                            "pkg-config finds no tsbridge ({}), no TSBRIDGE_LIB_DIR, no \
                             repository build ({})",
                            why.lines().next().unwrap_or("not found"),
                            build.display()
                        ),
                    });
                }
                println!("cargo:rerun-if-changed={}", build.join("libtsbridge.so").display());
                from_dir("the repository's build", build, Some(repository.join("sdk/include")))
            }
        }
    };

    for dir in &found.search {
        println!("cargo:rustc-link-search=native={}", dir.display());
    }
    for lib in &found.libs {
        println!("cargo:rustc-link-lib=dylib={}", lib);
    }
    let rpath = if is_system_libdir(&found.lib_dir) {
        "a system directory: no rpath".to_string()
    } else {
        println!("cargo:rustc-link-arg=-Wl,-rpath,{}", found.lib_dir.display());
        println!("cargo:rpath={}", found.lib_dir.display());
        format!("rpath {}", found.lib_dir.display())
    };
    println!("cargo:found_by={}", found.found_by);
    println!("cargo:lib_dir={}", found.lib_dir.display());
    if let Some(include) = &found.include {
        println!("cargo:include={}", include.display());
    }
    // Shown by cargo build -vv.
    println!(
        "tsbridge: libtsbridge{} found by {}: library in {} ({})",
        if found.version.is_empty() { String::new() } else { format!(" {}", found.version) },
        found.found_by,
        found.lib_dir.display(),
        rpath
    );
}
