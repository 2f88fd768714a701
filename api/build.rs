// `embed_migrations!` does not notice a new migration folder by itself.
fn main() {
    println!("cargo:rerun-if-changed=../migrations");
}
