//! Declared input capabilities: a model whose `capabilities` leave out a media kind never
//! receives content of that kind. The parts are removed from the request just before it is
//! sent, so the session keeps them (a later model that takes images still sees them).

use std::borrow::Cow;
use std::sync::Arc;

use futures::future::BoxFuture;
use tether_protocol::chat::{ContentPart, Message};

use crate::{ChatRequest, InputMedia, Provider, ProviderError, ResponseStream};

/// Wraps a client so each request loses the content parts its model cannot take.
#[derive(Debug)]
pub(crate) struct StripMedia {
    inner: Arc<dyn Provider>,
    media: InputMedia,
    id: String,
}

impl StripMedia {
    pub(crate) fn new(inner: Arc<dyn Provider>, media: InputMedia, id: String) -> Self {
        Self { inner, media, id }
    }
}

impl Provider for StripMedia {
    fn id(&self) -> &str {
        &self.id
    }

    fn stream<'a>(
        &'a self,
        req: &'a ChatRequest,
    ) -> BoxFuture<'a, Result<ResponseStream, ProviderError>> {
        Box::pin(async move {
            match strip(req, self.media) {
                Cow::Borrowed(req) => self.inner.stream(req).await,
                Cow::Owned(req) => self.inner.stream(&req).await,
            }
        })
    }
}

/// The request without the parts `media` does not allow; borrowed when nothing goes.
pub(crate) fn strip(req: &ChatRequest, media: InputMedia) -> Cow<'_, ChatRequest> {
    let refused = |p: &ContentPart| match p {
        ContentPart::Text { .. } => false,
        ContentPart::ImageUrl { image_url } => !media.accepts(&image_url.url),
    };
    if !req
        .messages
        .iter()
        .any(|m| m.multi_content.iter().any(refused))
    {
        return Cow::Borrowed(req);
    }
    let mut out = req.clone();
    for m in &mut out.messages {
        strip_message(m, &refused);
    }
    Cow::Owned(out)
}

fn strip_message(m: &mut Message, refused: &impl Fn(&ContentPart) -> bool) {
    if !m.multi_content.iter().any(refused) {
        return;
    }
    m.multi_content.retain(|p| !refused(p));
    // With no part left, the plain `content` is what the model sees.
    if m.multi_content.is_empty() && m.content.is_empty() {
        m.content =
            "[attachment removed: the model does not accept this kind of content]".to_owned();
    }
}

impl InputMedia {
    /// Whether a media part at `url` may be sent: a `data:` URL by its MIME type, anything
    /// else is an image.
    fn accepts(&self, url: &str) -> bool {
        let mime = url.strip_prefix("data:").map(|rest| {
            rest.split([';', ','])
                .next()
                .unwrap_or("")
                .to_ascii_lowercase()
        });
        match mime.as_deref() {
            Some("application/pdf") => self.pdf,
            Some(m) if m.starts_with("audio/") => self.audio,
            Some(m) if m.starts_with("video/") => self.video,
            _ => self.image,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pretty_assertions::assert_eq;
    use tether_protocol::chat::ImageUrl;

    fn user(parts: &[(&str, &str)]) -> Message {
        let mut m = Message::user("");
        m.multi_content = parts
            .iter()
            .map(|(kind, v)| match *kind {
                "text" => ContentPart::Text {
                    text: (*v).to_owned(),
                },
                _ => ContentPart::ImageUrl {
                    image_url: ImageUrl {
                        url: (*v).to_owned(),
                    },
                },
            })
            .collect();
        m
    }

    fn request(messages: Vec<Message>) -> ChatRequest {
        ChatRequest {
            messages,
            ..ChatRequest::default()
        }
    }

    #[test]
    fn a_text_only_model_loses_images_and_keeps_the_text() {
        let req = request(vec![user(&[
            ("text", "what is this?"),
            ("image", "data:image/png;base64,AAAA"),
        ])]);
        let got = strip(&req, InputMedia::default());
        assert_eq!(
            got.messages[0].multi_content,
            vec![ContentPart::Text {
                text: "what is this?".to_owned()
            }]
        );
    }

    #[test]
    fn an_image_model_keeps_images_but_loses_a_pdf() {
        let media = InputMedia {
            image: true,
            ..InputMedia::default()
        };
        let req = request(vec![user(&[
            ("image", "https://example.com/cat.png"),
            ("image", "data:application/pdf;base64,AAAA"),
        ])]);
        let got = strip(&req, media);
        assert_eq!(got.messages[0].multi_content.len(), 1);
        assert!(matches!(&got.messages[0].multi_content[0],
            ContentPart::ImageUrl { image_url } if image_url.url.ends_with("cat.png")));
    }

    #[test]
    fn a_request_with_nothing_to_remove_is_not_copied() {
        let req = request(vec![user(&[("text", "hi")])]);
        assert!(matches!(
            strip(&req, InputMedia::default()),
            Cow::Borrowed(_)
        ));
    }

    #[test]
    fn a_message_of_only_refused_parts_says_what_was_removed() {
        let req = request(vec![user(&[("image", "data:image/png;base64,AAAA")])]);
        let got = strip(&req, InputMedia::default());
        assert!(got.messages[0].multi_content.is_empty());
        assert!(got.messages[0].content.contains("attachment removed"));
    }
}
