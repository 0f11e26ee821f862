//! Integration tests of the store, by concern.

mod placeholder {
    #[test]
    fn builds() {}
}
