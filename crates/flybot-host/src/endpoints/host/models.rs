//! `models-config`, `model-provider-set`, `model-provider-remove`,
//! `model-default-set` (issue 31): Settings' models, over the service in
//! `crate::models_settings`.

use crate::host::Host;
use crate::models_settings::ModelsSettings;

/// The models service for this host.
pub fn settings(host: &Host) -> ModelsSettings<'_> {
    let config = host.config();
    ModelsSettings {
        team: host.team(),
        secrets: host.secrets(),
        models: &config.models,
        config_file: &config.config_file,
    }
}
