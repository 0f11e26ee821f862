//! The cloud credentials a store is opened with, read through the caller's lookup rather than
//! the environment block: hotl wipes them from the block so that the commands it runs cannot
//! read them, and keeps a copy only it reads.

use object_store::aws::{AmazonS3Builder, AmazonS3ConfigKey};
use object_store::azure::{AzureConfigKey, MicrosoftAzureBuilder};
use object_store::gcp::{GoogleCloudStorageBuilder, GoogleConfigKey};

/// A lookup of one secret variable by name.
pub type Lookup<'a> = &'a dyn Fn(&str) -> Option<String>;

/// S3's keys: the access key pair and a session token.
pub fn aws(mut builder: AmazonS3Builder, secret: Lookup) -> AmazonS3Builder {
    for (var, key) in [
        ("AWS_ACCESS_KEY_ID", AmazonS3ConfigKey::AccessKeyId),
        ("AWS_SECRET_ACCESS_KEY", AmazonS3ConfigKey::SecretAccessKey),
        ("AWS_SESSION_TOKEN", AmazonS3ConfigKey::Token),
    ] {
        if let Some(value) = secret(var) {
            builder = builder.with_config(key, value);
        }
    }
    builder
}

/// Google Cloud Storage's service account key (the JSON itself, not a path to it).
pub fn gcp(mut builder: GoogleCloudStorageBuilder, secret: Lookup) -> GoogleCloudStorageBuilder {
    if let Some(value) = secret("GOOGLE_SERVICE_ACCOUNT_KEY") {
        builder = builder.with_config(GoogleConfigKey::ServiceAccountKey, value);
    }
    builder
}

/// Azure's account key, SAS key and client secret.
pub fn azure(mut builder: MicrosoftAzureBuilder, secret: Lookup) -> MicrosoftAzureBuilder {
    for (var, key) in [
        ("AZURE_STORAGE_ACCOUNT_KEY", AzureConfigKey::AccessKey),
        ("AZURE_STORAGE_SAS_KEY", AzureConfigKey::SasKey),
        ("AZURE_CLIENT_SECRET", AzureConfigKey::ClientSecret),
    ] {
        if let Some(value) = secret(var) {
            builder = builder.with_config(key, value);
        }
    }
    builder
}
