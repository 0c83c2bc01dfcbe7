<?php
// Makes WordPress posts private (Edit post > Visibility: Private, wp_update_post() with
// post_status "private"): guests see neither them nor their comments; an editor (the lab's
// alice) reads them.
// usage: HTTP_HOST=127.0.0.1:18081 php wordpress_private_posts.php POST_ID...
$_SERVER['HTTP_HOST'] = getenv('HTTP_HOST');
$_SERVER['SERVER_NAME'] = '127.0.0.1';
$_SERVER['REQUEST_URI'] = '/';
require '/usr/share/wordpress/wp-load.php';
wp_set_current_user(1);
foreach (array_slice($argv, 1) as $id) {
    $result = wp_update_post(['ID' => (int)$id, 'post_status' => 'private'], true);
    if (is_wp_error($result)) { fwrite(STDERR, $result->get_error_message() . "\n"); exit(1); }
    fwrite(STDERR, "[wordpress] post $id: private\n");
}
