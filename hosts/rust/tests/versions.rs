//! Versions that clash (docs/install.md, "When versions clash"): archives and
//! a `.pt2` package whose records say another PyTorch wrote them
//! (tests/core/runtime/make_version_fixtures.py), and a plugin built against
//! another LibTorch, are refused naming both versions.
mod common;
use common::env_path;
use std::path::PathBuf;
use tsbridge::{plugin, Code, Module};

fn fixture(name: &str) -> PathBuf {
    env_path("TSB_VERSION_FIXTURES").join(name)
}

/// versions.json's value of `key`: a string or a number as text, None for null.
fn recorded(key: &str) -> Option<String> {
    let text = std::fs::read_to_string(fixture("versions.json")).unwrap();
    let at = text.find(&format!("\"{}\": ", key)).unwrap_or_else(|| panic!("no {} in {}", key, text));
    let rest = &text[at + key.len() + 4..];
    let value = rest[..rest.find(|c| c == ',' || c == '\n').unwrap()].trim();
    if value == "null" {
        None
    } else {
        Some(value.trim_matches('"').to_string())
    }
}

fn refusal<T>(result: tsbridge::Result<T>) -> String {
    let e = result.err().expect("refused");
    assert_eq!(e.code, Code::Unsupported, "{}", e);
    e.to_string()
}

#[test]
fn a_newer_file_format_names_both_versions() {
    let path = fixture("newer_format.pt");
    assert_eq!(
        refusal(Module::load(&path)),
        format!(
            "cannot load module \"{}\": written by a newer PyTorch in TorchScript file format {} \
             (the archive records no PyTorch version); this is LibTorch {}, which reads format \
             versions up to 10",
            path.display(),
            recorded("newer_format").unwrap(),
            recorded("libtorch").unwrap()
        )
    );
    let bytes = std::fs::read(&path).unwrap();
    let message = refusal(Module::read(&bytes));
    assert!(message.starts_with(&format!("cannot load a module from {} bytes: written by a newer PyTorch", bytes.len())), "{}", message);
}

#[test]
fn an_operator_this_libtorch_lacks_names_it_and_the_record() {
    let path = fixture("unknown_op.pt");
    assert_eq!(
        refusal(Module::load(&path)),
        format!(
            "cannot load module \"{}\": its code calls the operator aten::tsb_newer_op, which \
             LibTorch {} does not have: another PyTorch release wrote it (the archive records \
             TorchScript file format 3 and no PyTorch version)",
            path.display(),
            recorded("libtorch").unwrap()
        )
    );
}

#[test]
fn a_package_compiled_by_another_release_names_both() {
    let ours = recorded("libtorch").unwrap();
    let theirs = match recorded("newer_torch") {
        Some(theirs) => theirs,
        None => {
            // LibTorch 1.13: every package names the release it needs.
            let fake = std::env::temp_dir().join(format!("tsb_rust_versions_{}.pt2", std::process::id()));
            std::fs::write(&fake, b"never read").unwrap();
            let message = refusal(Module::load(&fake));
            std::fs::remove_file(&fake).unwrap();
            let want = format!("needs LibTorch 2.6 or newer, and this library was built with LibTorch {}", ours);
            assert!(message.contains(&want), "{}", message);
            return;
        }
    };
    let path = fixture("newer_torch.pt2");
    assert_eq!(
        refusal(Module::load(&path)),
        format!(
            "cannot load \"{}\": compiled by PyTorch {} (its model \"model\" needs libtorch_cpu.so.{}); \
             this is LibTorch {}: compile the package again with PyTorch {}",
            path.display(),
            theirs,
            theirs,
            ours,
            ours
        )
    );
}

#[test]
fn a_plugin_built_against_another_libtorch_names_both() {
    let path = env_path("TSB_OTHER_TORCH_PLUGIN");
    let path = path.to_str().unwrap();
    let ours = recorded("libtorch").unwrap();
    let message = refusal(plugin::load(path));
    let head = format!(
        "cannot load plugin '{}': built against LibTorch {}, this tsbridge against LibTorch {} (platform \"",
        path,
        recorded("other_torch_plugin").unwrap(),
        ours
    );
    assert!(message.starts_with(&head), "{}", message);
    assert!(message.ends_with(&format!("rebuild the plugin against this tsbridge and LibTorch {}", ours)), "{}", message);
}

#[test]
fn a_plugin_built_against_another_sdk_names_both() {
    // Beside other_torch: the fixture an SDK before ABI 2 built.
    let other = env_path("TSB_OTHER_TORCH_PLUGIN");
    let path = other.parent().unwrap().parent().unwrap().join("old_sdk").join("libfixture_old_sdk.so");
    let path = path.to_str().unwrap();
    let message = refusal(plugin::load(path));
    let head = format!(
        "cannot load plugin '{}': built against the tsbridge SDK ABI 1 (the C++ types shared with plugins: \
         KindCodec, TypeInfo), this tsbridge needs SDK ABI ",
        path
    );
    assert!(message.starts_with(&head), "{}", message);
}
