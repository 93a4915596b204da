//! The command line's contract: exit 0 on success, 1 with a one-line message naming the
//! file on bad input, 2 on usage errors.

use std::process::Command;

fn untangle(args: &[&str]) -> (i32, String, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_untangle"))
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run untangle");
    (
        out.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn info_on_the_readme_sample() {
    let (code, out, _) = untangle(&["info", "corpus/cs_nested_ifs_loop.ll"]);
    assert_eq!(code, 0);
    assert!(out.contains("shader model: cs_6_0"), "{out}");
    assert!(out.contains("numthreads(64, 1, 1)"), "{out}");
    assert!(out.contains("UAV u0, space0"), "{out}");
}

#[test]
fn info_json_is_json() {
    let (code, out, _) = untangle(&["info", "--json", "corpus/ps_textured.ll"]);
    assert_eq!(code, 0);
    let v: serde_json::Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["dxil"]["shader_model"]["profile"], "ps");
    assert_eq!(v["dxil"]["entry_points"][0]["signatures"]["inputs"][1]["semantic"], "TEXCOORD");
}

#[test]
fn bad_input_is_one_line_naming_the_file_and_exit_1() {
    let dir = std::env::temp_dir().join(format!("untangle-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let cases: [(&str, &[u8]); 3] = [
        ("garbage.bin", b"\x00\x01\x02 not a shader"),
        ("short.dxil", b"DXBC\x00\x00\x00"),
        ("bad.ll", b"define void @f() {\n  br label %nowhere\n}\n"),
    ];
    for (name, bytes) in cases {
        let p = dir.join(name);
        std::fs::write(&p, bytes).unwrap();
        let (code, out, err) = untangle(&["info", p.to_str().unwrap()]);
        assert_eq!(code, 1, "{name}: {err}");
        assert!(out.is_empty());
        assert_eq!(err.trim_end().lines().count(), 1, "{name}: {err}");
        assert!(err.contains(name), "{err}");
    }
    let (code, _, err) = untangle(&["info", "no/such/file.dxil"]);
    assert_eq!(code, 1);
    assert!(err.contains("no/such/file.dxil"), "{err}");
    std::fs::remove_dir_all(&dir).ok();
}

#[test]
fn usage_errors_exit_2() {
    assert_eq!(untangle(&[]).0, 2);
    assert_eq!(untangle(&["info"]).0, 2);
    assert_eq!(untangle(&["frobnicate", "x"]).0, 2);
}
