//! Settings turned into the analysis' inputs, and the one call into the analysis core.

use std::path::{Path, PathBuf};

use crate::config::Options;
use crate::diagnostic::{Diagnostic, Severity};
use crate::lsp::inventory::InventoryFiles;
use crate::lsp::settings::Settings;
use crate::rules;

/// Everything an analysis depends on besides the document's text. Immutable: a configuration
/// change or an inventory reload makes a new one with the next `generation`.
#[derive(Debug, Clone, Default)]
pub struct Workspace {
    pub settings: Settings,
    pub root: Option<PathBuf>,
    pub options: Options,
    /// Per-rule overrides: `None` turns the rule off.
    severities: Vec<(&'static str, Option<Severity>)>,
    pub inventory: InventoryFiles,
    /// Changes whenever an analysis could come out differently.
    pub generation: u64,
}

impl Workspace {
    /// The analysis inputs for `settings`, and what was wrong with them (each bad entry is
    /// left out, the rest applies).
    pub fn new(settings: Settings, root: Option<&Path>, generation: u64) -> (Self, Vec<String>) {
        let mut problems = Vec::new();
        let mut options = Options::default();
        for gate in &settings.feature_gates {
            if let Err(e) = options.set_feature_gates(gate) {
                problems.push(format!("featureGates: {e}"));
            }
        }
        for (list, enable) in [
            (&settings.enable_admission_plugins, true),
            (&settings.disable_admission_plugins, false),
        ] {
            for plugin in list {
                if let Err(e) = options.set_admission_plugins(plugin, enable) {
                    let key = if enable {
                        "enableAdmissionPlugins"
                    } else {
                        "disableAdmissionPlugins"
                    };
                    problems.push(format!("{key}: {e}"));
                }
            }
        }
        let mut severities = Vec::new();
        for (name, level) in &settings.rules {
            let Some(meta) = rules::find(name) else {
                let names: Vec<&str> = rules::all().map(|m| m.name).collect();
                problems.push(format!(
                    "rules: no rule named {name:?}; the rules are: {}",
                    names.join(", ")
                ));
                continue;
            };
            let severity = match level.as_str() {
                "error" => Some(Severity::Error),
                "warning" => Some(Severity::Warning),
                "info" => Some(Severity::Info),
                "hint" => Some(Severity::Hint),
                "off" => None,
                other => {
                    problems.push(format!(
                        "rules.{name}: {other:?} is not one of error, warning, info, hint, off"
                    ));
                    continue;
                }
            };
            severities.push((meta.name, severity));
        }
        // The inventory: the files are read here. Parsing them into the core's inventory
        // model belongs here too, next to reading them.
        let inventory = InventoryFiles::read(&settings.inventory, root);
        problems.extend(inventory.problems());
        let workspace = Workspace {
            settings,
            root: root.map(Path::to_path_buf),
            options,
            severities,
            inventory,
            generation,
        };
        (workspace, problems)
    }

    /// The same settings with the inventory files read again.
    pub fn with_inventory_reread(&self, generation: u64) -> (Self, Vec<String>) {
        let inventory = self.inventory.reread();
        let problems = inventory.problems();
        let workspace = Workspace {
            inventory,
            generation,
            ..self.clone()
        };
        (workspace, problems)
    }

    /// Lints one document: the only call from the server into the analysis core. With the
    /// inventory model, this passes it along with the options.
    pub fn analyse(&self, text: &str) -> Vec<Diagnostic> {
        let mut diagnostics = crate::analyse(text, &self.options);
        if !self.severities.is_empty() {
            diagnostics.retain_mut(|d| {
                match self
                    .severities
                    .iter()
                    .rev()
                    .find(|(name, _)| *name == d.rule)
                {
                    Some((_, None)) => false,
                    Some((_, Some(severity))) => {
                        d.severity = *severity;
                        true
                    }
                    None => true,
                }
            });
        }
        diagnostics
    }

    /// Whether the Lt and Gt toleration operators are on.
    pub fn comparison_operators(&self) -> bool {
        self.options.feature("TaintTolerationComparisonOperators")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_become_options_and_severities() {
        let settings = Settings {
            feature_gates: vec!["TaintTolerationComparisonOperators=true".into()],
            disable_admission_plugins: vec!["DefaultTolerationSeconds".into(), "Nope".into()],
            rules: vec![
                ("unknown-effect".into(), "warning".into()),
                ("equal-empty-value".into(), "off".into()),
                ("no-such-rule".into(), "off".into()),
                ("unknown-operator".into(), "loud".into()),
            ],
            ..Settings::default()
        };
        let (ws, problems) = Workspace::new(settings, None, 1);
        assert!(ws.comparison_operators());
        assert!(!ws.options.admission_enabled("DefaultTolerationSeconds"));
        assert_eq!(problems.len(), 3, "{problems:?}");
        assert!(problems[0].starts_with("disableAdmissionPlugins: admission plugin \"Nope\""));
        assert!(problems[1].starts_with("rules: no rule named \"no-such-rule\""));
        assert_eq!(
            problems[2],
            "rules.unknown-operator: \"loud\" is not one of error, warning, info, hint, off"
        );
        let text = "tolerations:\n- key: a\n  effect: noschedule\n- key: b\n";
        let found: Vec<(&str, Severity)> = ws
            .analyse(text)
            .iter()
            .map(|d| (d.rule, d.severity))
            .collect();
        assert_eq!(found, [("unknown-effect", Severity::Warning)]);
        let (plain, _) = Workspace::new(Settings::default(), None, 1);
        assert!(plain
            .analyse(text)
            .iter()
            .any(|d| d.rule == "equal-empty-value"));
    }
}
