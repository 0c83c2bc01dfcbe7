<?php
// Posts one new reply, dated now, to a topic of a lab phpBB, as a normal user, through phpBB's own
// submit_post() (what posting.php does for a reply).
//   usage (as www-data, with the instance's PHP):  php reply.php PHPBB_ROOT TOPIC_ID [USERNAME=bob]
// Prints one JSON line: topic, forum, post id, time, the topic's post count after the reply.
$root = rtrim($argv[1] ?? '', '/');
$topic_id = (int)($argv[2] ?? 0);
$username = $argv[3] ?? 'bob';
if (!$root || $topic_id < 1) { fwrite(STDERR, "usage: php reply.php PHPBB_ROOT TOPIC_ID [USERNAME]\n"); exit(2); }

$script = 'reply.php';
require __DIR__ . '/boot.php';
$topic = row('SELECT t.topic_id, t.topic_title, t.forum_id, f.forum_name FROM ' . TOPICS_TABLE . ' t JOIN ' . FORUMS_TABLE
             . ' f ON f.forum_id = t.forum_id WHERE t.topic_id = ' . $topic_id);
$poster = row('SELECT * FROM ' . USERS_TABLE . " WHERE username_clean = '" . $db->sql_escape(utf8_clean_string($username)) . "'");
if (!$topic || !$poster) { fwrite(STDERR, "[lab/reply] no topic $topic_id or no user $username\n"); exit(1); }
$user->data = array_merge($user->data, $poster);  // act as the user, as a logged-in request would
$user->ip = '127.0.0.1';
$auth->acl($user->data);

$now = time();
$message = "A new reply for the incremental crawl, posted " . gmdate('Y-m-d H:i:s', $now) . " UTC. "
         . "Thanks, that fixed it for me as well. 谢谢分享，这个方法在我这里也有效。";
$uid = $bitfield = $options = '';
generate_text_for_storage($message, $uid, $bitfield, $options, true, true, true);
$subject = 'Re: ' . $topic['topic_title'];
$data = [
    'forum_id' => (int)$topic['forum_id'], 'topic_id' => $topic_id, 'icon_id' => 0,
    'enable_bbcode' => true, 'enable_smilies' => true, 'enable_urls' => true, 'enable_sig' => true,
    'message' => $message, 'message_md5' => md5($message),
    'bbcode_bitfield' => $bitfield, 'bbcode_uid' => $uid,
    'post_edit_locked' => 0, 'topic_title' => $subject, 'notify_set' => false, 'notify' => false,
    'post_time' => $now, 'forum_name' => $topic['forum_name'],
    'enable_indexing' => true, 'force_approved_state' => ITEM_APPROVED, 'force_visibility' => ITEM_APPROVED,
    'attachment_data' => [], 'poster_ip' => '127.0.0.1',
];
$poll = [];
submit_post('reply', $subject, $poster['username'], POST_NORMAL, $poll, $data);
$after = row('SELECT topic_posts_approved FROM ' . TOPICS_TABLE . ' WHERE topic_id = ' . $topic_id);
echo json_encode(['topic_id' => $topic_id, 'forum_id' => (int)$topic['forum_id'], 'post_id' => (int)$data['post_id'],
                  'time' => gmdate('c', $now), 'user' => $poster['username'],
                  'topic_posts' => (int)$after['topic_posts_approved']]), "\n";
