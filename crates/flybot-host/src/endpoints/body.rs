//! Request bodies: a JSON object, parsed into the endpoint's typed request,
//! refused with `bot/invalid` naming the field that is wrong. A body's
//! `actorId` is dropped here, once, for every endpoint: the actor is the
//! session header's, never the body's (#48).

use flybot_protocol::ApiError;
use serde::de::DeserializeOwned;
use serde_json::Value;

/// Parses a body; an empty body reads as `{}`.
pub fn parse<T: DeserializeOwned>(body: &[u8]) -> Result<T, ApiError> {
    let first = body.iter().find(|b| !b.is_ascii_whitespace());
    let bytes: &[u8] = match first {
        None => b"{}",
        Some(b'{') => body,
        Some(_) => {
            return Err(ApiError::invalid(
                "body",
                "The body must be a JSON object, such as {\"name\": \"Ada\"}.",
            ));
        }
    };
    let mut deserializer = serde_json::Deserializer::from_slice(bytes);
    let mut object: serde_json::Map<String, Value> =
        serde::Deserialize::deserialize(&mut deserializer)
            .map_err(|error| refusal("body", &error))?;
    deserializer.end().map_err(|error| {
        ApiError::invalid(
            "body",
            format!("The body has text after the JSON object ({error})."),
        )
    })?;
    object.remove(IGNORED_ACTOR);
    serde_path_to_error::deserialize(Value::Object(object)).map_err(|error| {
        let path = error.path().to_string();
        let inner = error.into_inner();
        refusal(&path, &inner)
    })
}

/// The body field an older client sends for the actor; never read (#48).
const IGNORED_ACTOR: &str = "actorId";

fn refusal(path: &str, error: &serde_json::Error) -> ApiError {
    if error.is_syntax() || error.is_eof() {
        return ApiError::invalid("body", format!("The body is not valid JSON: {error}."));
    }
    let text = error.to_string();
    // serde names a missing field in backticks, at the parent's path (an
    // unknown field is already on the path).
    let named = text
        .split('`')
        .nth(1)
        .filter(|_| text.starts_with("missing field"));
    let field = match (named, path) {
        (Some(name), "." | "") => name.to_owned(),
        (Some(name), parent) => format!("{parent}.{name}"),
        (None, path) => path.to_owned(),
    };
    let sentence = text.split(" at line ").next().unwrap_or(&text).to_owned();
    ApiError::invalid(&field, format!("Field {field}: {sentence}."))
}

#[cfg(test)]
mod tests {
    use super::*;
    use flybot_protocol::channel::{CreateBot, SetGrants};

    fn field_of(body: &str) -> String {
        let err = parse::<CreateBot>(body.as_bytes()).unwrap_err();
        err.details["field"].as_str().unwrap().to_owned()
    }

    #[test]
    fn refusals_name_the_field() {
        assert_eq!(field_of(r#"{"name": 3}"#), "name");
        assert_eq!(field_of(r#"{}"#), "name");
        assert_eq!(field_of(r#"{"name": "a", "colour": 1}"#), "colour");
        assert_eq!(field_of(r#"{"name": "#), "body");
        assert_eq!(field_of(r#"["a"]"#), "body");
        assert_eq!(field_of(r#"{"name": "a"} x"#), "body");
        let err = parse::<SetGrants>(br#"{"botId": "b", "grants": [{"grantee": 1}]}"#).unwrap_err();
        assert_eq!(err.details["field"], "grants[0].grantee");
    }

    #[test]
    /// Rule #48.
    fn actor_id_is_accepted_and_ignored() {
        let req: CreateBot = parse(br#"{"name": "a", "actorId": "member-x"}"#).unwrap();
        assert_eq!(req.name, "a");
        // Any endpoint's body, not only those that once declared it.
        let room: crate::endpoints::chat::room_chat::RoomSend =
            parse(br#"{"roomId": "r", "text": "hi", "actorId": {"forged": true}}"#).unwrap();
        assert_eq!(room.room_id, "r");
    }
}
