mod placeholder {
    #[test]
    fn builds() {}
}
